"""Mechanisms, one module each: the event class (dp-accounting's class and field names) and its privacy maps —
its Rényi curve under each relation, its privacy-loss pair for the PLD, its pure ε, its exact form where one exists,
its calibratable knobs — and the catalog's closed forms for it.

Noise parameters are relative to the sensitivity (a noise multiplier is the noise scale over the clipping norm C);
how far neighbouring outputs move under each relation is `dpcalc.accounting.events.relation`'s convention (one
sensitivity under add/remove and replace-special, two under replace-one).
"""
