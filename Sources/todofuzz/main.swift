// todofuzz: sends malformed and hostile input to a running todod. Being written.
print("todofuzz: not written yet")
