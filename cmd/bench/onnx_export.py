# Exports torchvision's ResNet-18 (random weights, 1000 classes, eval mode,
# batch dimension dynamic) with PyTorch's ONNX exporter, for the ONNX
# benchmarks of `go run ./cmd/bench`:  python3 onnx_export.py OUT.onnx
import sys

import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.resnet18().eval()
torch.onnx.export(model, (torch.randn(1, 3, 224, 224),), sys.argv[1], opset_version=13,
                  input_names=["input"], output_names=["logits"],
                  dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
