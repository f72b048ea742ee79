# PrioPlus Fig. 12a/b file requests (the artefact's, docs/reproductions/prioplus-paper.md, F12AB): 20 senders each send one piece of a
# file to one receiver; the per-sender piece is 0.5, 1.0, ..., 4.0 MB by priority (high to low), so a
# whole file (the coflow total S = 20 x piece) is 10, 20, ..., 80 MB, eight point masses of equal
# probability ("bytes cumulative-probability", a repeated size is a jump). With equal_load_per_level each
# size is its own level and carries 1/8 of the workload's load.
10000000 0
10000000 0.125
20000000 0.125
20000000 0.25
30000000 0.25
30000000 0.375
40000000 0.375
40000000 0.5
50000000 0.5
50000000 0.625
60000000 0.625
60000000 0.75
70000000 0.75
70000000 0.875
80000000 0.875
80000000 1
