print("nalu")
