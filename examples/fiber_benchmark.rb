# The seed 002 workload: a ring of fibers passing messages (prints its own setup and execution
# times, which pairbench reads with the regexes in seed002-fiber-jit.toml).
# Usage: ruby fiber_benchmark.rb FIBERS MESSAGES
fibers_count = Integer(ARGV[0] || 10000)
messages = Integer(ARGV[1] || 1000)

t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
fibers = Array.new(fibers_count) do
  Fiber.new do |message|
    loop { message = Fiber.yield(message + 1) }
  end
end
fibers.each { |f| f.resume(0) }
setup = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
puts "setup time for #{fibers_count} fibers: #{format('%.6f', setup)}"

t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
messages.times do
  value = 0
  fibers.each { |f| value = f.resume(value) }
end
exec = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t
puts "execution time for #{messages} messages: #{format('%.6f', exec)}"
