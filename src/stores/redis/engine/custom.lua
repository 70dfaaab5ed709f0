-- An algorithm the app defines itself (a LimiterAlgorithm of its own, not in the library):
-- its body, appended to the engine's table after the library's own. An engine with one
-- runs as a script (EVALSHA); `--- @body` is the algorithm's `lua`. It gets its own copy of
-- argv, which it may write: the engine passes a run of one limit's entries one table.
do
  local custom = function(key, now, argv)
--- @body
  end
  algorithms[#algorithms + 1] = function(key, now, argv)
    return custom(key, now, args_of(argv, 1, #argv))
  end
end
