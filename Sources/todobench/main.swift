print("todobench")
