"""Summaries of timings: medians, spread."""

import statistics
from dataclasses import dataclass


@dataclass
class Summary:
    median: float
    min: float
    max: float
    samples: list[float]

    @classmethod
    def of(cls, samples):
        return cls(median=statistics.median(samples), min=min(samples), max=max(samples), samples=list(samples))


def relative_spread(samples):
    """Interquartile range over median: how noisy a set of timings is."""
    if len(samples) < 4:
        return (max(samples) - min(samples)) / statistics.median(samples)
    q1, _, q3 = statistics.quantiles(samples, n=4)
    return (q3 - q1) / statistics.median(samples)


def rotations(items, rounds):
    """The order of each round: `items` rotated by one more place each round, so no
    variant always runs first (right after the previous round's last)."""
    for r in range(rounds):
        k = r % len(items)
        yield r, items[k:] + items[:k]
