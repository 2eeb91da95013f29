"""`cocopipe explorer`: a static, offline site over every data set of a store (an index, leaderboards per
suite and dimension, a page per data set), rebuilt incrementally from results kept per data set."""
