"""Camera, calibration, the ONNX tile classifier and the table reader."""
