# -*- coding: latin-1 -*-
s = 'é'
