#!/usr/bin/env python3
"""The seed's sample Studio session (DocsExtensionsV1), written with the mxproto client.

Run it under Studio, or under the emulated host::

    vrosdev studio --id com.example.one --end-after listVms \\
        --command "python examples/studio_sample_session.py"

It says hello with the variables Studio injects, answers ``extension.v1.reportStatus`` with
``ready``, then calls ``host.v1.listVms`` and prints the result array, and exits once Studio
calls ``extension.v1.shutdown`` (which the client has already answered).
"""

from __future__ import annotations

import json
import sys

import anyio

import mxproto

VERSION = "0.1.0"


async def session() -> int:
    status = mxproto.StatusReport(state="ready", message="watching", version=VERSION)
    async with mxproto.connect(status=status) as client:
        await client.wait_status_reported()
        vms = await client.list_vms()
        print(json.dumps(vms), flush=True)
        await client.wait_for_shutdown()
        if not client.shutdown_requested:
            print(f"studio_sample_session: {client.closed_reason}", file=sys.stderr)
            return 1
    return 0


def main() -> int:
    try:
        return anyio.run(session)
    except mxproto.HelloRejected as exc:
        print(json.dumps({"code": exc.code, "message": exc.message}), file=sys.stderr)
        return 1
    except mxproto.MxError as exc:
        print(f"studio_sample_session: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
