# The fabric view of `topoplace report fabric` (link loads drawn on the tree).
