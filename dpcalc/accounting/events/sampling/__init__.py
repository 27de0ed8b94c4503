"""Sampling schemes, one module each: which records a mechanism sees, with dp-accounting's class and field names, and
what the sampling does to the inner event's privacy maps (amplified RDP, the dominating pair for the PLD).

The sampling scheme changes what "neighbouring" means for the inner mechanism: Poisson sampling keeps the
add/remove relation, a fixed-size sample (without or with replacement) is a replace-one statement (the dataset size
is public).
"""
