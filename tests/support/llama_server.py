"""`python -m llama_cpp.server` without llama.cpp's extra weight buffers (repacking, AMX tiles).

On a VM whose CPU advertises AMX that the hypervisor does not run, ggml's AMX kernels die with SIGILL
(`trap invalid opcode … tileloadd` in libggml-cpu.so) on the first request; the plain CPU kernels
give the same replies. Usage: python llama_server.py --model PATH --host … (llama_cpp.server's flags).
"""

from __future__ import annotations

import runpy
import sys
from typing import Any

import llama_cpp
import llama_cpp.llama_cpp as low

_default_params = low.llama_model_default_params


def _params_without_extra_buffers() -> Any:
    params = _default_params()
    params.use_extra_bufts = False
    return params


low.llama_model_default_params = _params_without_extra_buffers
llama_cpp.llama_model_default_params = _params_without_extra_buffers  # what llama_cpp.Llama calls

if __name__ == "__main__":
    sys.argv = ["llama_cpp.server", *sys.argv[1:]]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
