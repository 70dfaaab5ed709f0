-- Declares two keys of different hash slots: runs where one script may declare keys of
-- several slots (a standalone Redis), is refused by proxies in front of a cluster (CROSSSLOT).
return #KEYS
