"""``python -m cueboard``; and, as ``__mp_main__``, the first thing an anyio worker process
(icons, waveforms, renders) loads: it lowers the worker's priority and imports nothing more."""

if __name__ == "__main__":
    from cueboard.runtime import main

    raise SystemExit(main())
elif __name__ == "__mp_main__":
    from cueboard.workers.priority import lower_priority

    lower_priority()
