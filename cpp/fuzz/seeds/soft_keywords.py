match = 1
case = match
type = case
match(type)
