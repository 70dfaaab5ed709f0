-- An algorithm the app defines itself (a LimiterAlgorithm of its own, not in the library):
-- its body, appended to the engine's table after the library's own. An engine with one
-- runs as a script (EVALSHA); `--- @body` is the algorithm's `lua`.
algorithms[#algorithms + 1] = function(key, now, argv)
--- @body
end
