import anyio


async def worker(n: int) -> None:
    await anyio.sleep(0.01)


async def main() -> None:
    async with anyio.create_task_group() as tg:
        for i in range(3):
            tg.start_soon(worker, i)
    with anyio.move_on_after(1) as scope:
        await anyio.sleep(0)
    print(scope.cancel_called)
    send, receive = anyio.create_memory_object_stream[int](10)
    await send.send(1)
    print(await receive.receive())
    lock = anyio.Lock()
    async with lock:
        pass
    result = await anyio.to_thread.run_sync(sum, [1, 2])
    print(result)


anyio.run(main)
