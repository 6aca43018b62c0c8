"""What a result was computed on: the machine record that manifests and archives carry."""
import torch

from groklab.engine import machine


def test_the_record_has_the_build_and_the_cpu_speed():
    doc = machine.describe()
    assert doc["torch"] == torch.__version__ and doc["cores"] >= 1
    assert doc["fp32_gflops"]["one_thread"] > 0 and doc["fp32_gflops"]["all_threads"] > 0


def test_a_gpu_is_named_and_timed_beside_the_host(monkeypatch):
    """On a CUDA machine the record names the card and its own fp32 speed (the host's says nothing of it)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "NVIDIA H100 80GB HBM3")
    monkeypatch.setattr(machine, "gpu_gflops", lambda: 51172.0)
    doc = machine.describe()
    assert doc["gpu"] == "NVIDIA H100 80GB HBM3" and doc["fp32_gflops"]["gpu"] == 51172.0
    assert "gpu" in machine.describe(gflops=False) and "fp32_gflops" not in machine.describe(gflops=False)
