"""``python -m engine.model.serve_llama ARGS``: llama-cpp-python's server (``python -m llama_cpp.server
ARGS``) with the app's guard against llama.cpp builds whose AMX buffers crash on the host
(:func:`engine.model.llama.guard_extra_buffers`). The tests and the server benchmark start it this way;
a site's model host can too."""

from __future__ import annotations

import runpy

from engine.model.llama import _llama_cpp, guard_extra_buffers


def main() -> None:
    guard_extra_buffers(_llama_cpp())
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
