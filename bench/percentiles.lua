-- wrk's --latency table stops at 99%; bench/run also quotes p99.9. Milliseconds, on one line.
done = function(summary, latency, requests)
  io.write(string.format("PERCENTILES %.3f %.3f %.3f\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000))
end
