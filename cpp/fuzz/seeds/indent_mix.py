if x:
	if y:
        pass
  pass
