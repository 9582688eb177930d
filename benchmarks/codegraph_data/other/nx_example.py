import networkx as nx

G = nx.Graph()
G.add_edge("a", "b", weight=3)
G.add_edges_from([("b", "c"), ("c", "d")])
G.add_node("e", color="red")
print(G.number_of_nodes(), G.number_of_edges(), list(G.neighbors("b")))
path = nx.shortest_path(G, source="a", target="d", weight="weight")
print(path, nx.is_connected(G), nx.degree_centrality(G))
D = nx.DiGraph()
D.add_edge(1, 2)
print(list(nx.topological_sort(D)), D.in_degree(2), D.successors(1))
for u, v, data in G.edges(data=True):
    print(u, v, data.get("weight"))
H = G.subgraph(["a", "b"]).copy()
print(nx.to_dict_of_lists(H))
