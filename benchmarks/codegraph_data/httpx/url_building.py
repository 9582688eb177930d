"""Build and inspect URLs and query parameters."""

from httpx import URL, QueryParams


def main() -> None:
    url = URL("https://example.com/api/v1/items?page=2")
    print(url.scheme, url.host, url.path, url.params["page"])
    next_page = url.copy_merge_params({"page": "3"})
    other = url.copy_with(path="/api/v2/items")
    joined = url.join("../v2/orders")
    params = QueryParams({"q": "tea", "limit": "10"}).set("limit", "20")
    print(next_page, other, joined, params.get("limit"), str(params))


if __name__ == "__main__":
    main()
