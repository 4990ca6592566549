"""The shipped tile classifier (tiles.onnx) and its model card; a package so wheels carry them."""
