from cueboard.runtime import main

# Guarded: anyio's worker processes (icon decoding) import the parent's main module.
if __name__ == "__main__":
    raise SystemExit(main())
