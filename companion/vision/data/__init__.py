"""The board reader's shipped data: the cell model (cellnet.onnx) and its recipe (cellnet.json)."""
