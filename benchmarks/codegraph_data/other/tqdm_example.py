from tqdm import tqdm, trange

for _ in tqdm(range(3), desc="loop", total=3, leave=False):
    pass
bar = tqdm(total=10, unit="B", unit_scale=True)
bar.update(5)
bar.set_description("half")
bar.set_postfix(loss=0.1)
bar.close()
for _ in trange(2):
    pass
