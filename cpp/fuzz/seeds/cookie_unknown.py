# coding: nope
x = 1
