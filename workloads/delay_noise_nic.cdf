# Non-congestive delay-measurement noise of NIC hardware timestamps (PrioPlus, §4.3.2 Fig. 7;
# docs/models/noise.md), written from the artefact's quantiles: median 0.18 us, p90 0.35,
# p99 0.53, p99.8 0.80, max 0.88 us (mean of this file 0.205 us, p99.85 0.82 us).
# x = noise in nanoseconds, y = cumulative probability.
0 0
100 0.2
180 0.5
350 0.9
530 0.99
800 0.998
880 1
