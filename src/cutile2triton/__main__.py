"""``python -m cutile2triton`` is the ``cutile2triton`` command."""

from .cli import main

raise SystemExit(main())
