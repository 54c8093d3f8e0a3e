import anyio

import vxp


async def main() -> None:
    async with vxp.connect() as client:
        await client.commands.register("say-hello")
        count, _ = await client.kv.get("count")
        async for event in client.events():
            if isinstance(event, vxp.models.CommandInvoked):
                count = (count or 0) + 1
                await client.kv.set("count", count)
                print(f"hello #{count} from {client.welcome.locale}")
            elif isinstance(event, vxp.models.ShuttingDown):
                break


anyio.run(main)
