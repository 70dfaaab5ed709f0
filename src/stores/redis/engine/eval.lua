-- The engine as one script (EVALSHA), where Redis has no Functions: the library's text
-- without its name line and its registrations, then this. Its Cluster variant, declared
-- `allow-cross-slot-keys`, passes the count of keys and every key at the head of ARGV,
-- before the deadline and the entries: more than those two arguments.
if #ARGV > 2 then
  return engine_across_slots(KEYS, ARGV)
end
return engine(KEYS, ARGV)
