try:
    pass
except* ValueError as e:
    raise
else:
    pass
finally:
    del x
