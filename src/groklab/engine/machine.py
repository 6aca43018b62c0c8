"""What a result was computed on: groklab version and commit, torch build, cores, and fp32 matmul speed.

These machines' speed varies several-fold from day to day, so a wall time means little without the
matmul GFLOP/s measured in the same session: archives and reproductions record both.
"""
from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path


def matmul_gflops(n: int = 512, repeats: int = 5, threads: int | None = None) -> float:
    """fp32 n x n matmul speed, median of `repeats` (on `threads` threads, torch's count when None)."""
    import torch

    old = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        a, b = torch.randn(n, n), torch.randn(n, n)
        a @ b  # warm-up
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            a @ b
            times.append(time.perf_counter() - t0)
    finally:
        torch.set_num_threads(old)
    return round(2 * n**3 / sorted(times)[len(times) // 2] / 1e9, 1)


def gpu_gflops(n: int = 4096, repeats: int = 5) -> float:
    """fp32 (TF32 off) n x n matmul speed on the current CUDA device, median of `repeats` runs of 10 products."""
    import torch

    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
        for _ in range(3):
            a @ b  # warm-up: clocks up, kernels chosen
        times = []
        for _ in range(repeats):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(10):
                a @ b
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) / 10)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    return round(2 * n**3 / sorted(times)[len(times) // 2] / 1e9, 1)


def commit() -> str | None:
    """The git commit of the groklab source in use (with '+dirty' for local changes), None outside a checkout."""
    src = Path(__file__).resolve().parents[3]
    if not (src / ".git").exists():
        return None
    try:
        run = lambda *a: subprocess.run(["git", "-C", str(src), *a], capture_output=True, text=True,  # noqa: E731
                                        timeout=10).stdout.strip()
        head = run("rev-parse", "--short=12", "HEAD")
        return (head + ("+dirty" if run("status", "--porcelain", "--untracked-files=no") else "")) or None
    except (OSError, subprocess.SubprocessError):
        return None


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe(gflops: bool = True) -> dict:
    """The build and the machine, as plain JSON data; the matmul speed is measured now (about a second).
    gflops=False: no speed, and torch is not imported for it: its version is read from the installed package,
    and a GPU is named only if torch is already loaded."""
    try:
        version = metadata.version("groklab")
    except metadata.PackageNotFoundError:
        version = None
    torch = sys.modules.get("torch")
    if torch is None and gflops:
        import torch
    doc = {"groklab": version, "commit": commit(),
           "torch": torch.__version__ if torch else _installed("torch"),
           "cuda": torch.version.cuda if torch else None, "python": platform.python_version(),
           "cpu": cpu_model(), "cores": os.cpu_count(),
           "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    if gflops:
        doc["fp32_gflops"] = {"all_threads": matmul_gflops(), "one_thread": matmul_gflops(threads=1)}
    if torch is not None and torch.cuda.is_available():  # a GPU's runs are timed against its own speed
        doc["gpu"] = torch.cuda.get_device_name()
        if gflops:
            doc["fp32_gflops"]["gpu"] = gpu_gflops()
    return doc


def _installed(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
