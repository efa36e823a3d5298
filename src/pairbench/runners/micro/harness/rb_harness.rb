# pairbench micro-benchmark worker for Ruby, plain Ruby with its default gems (yaml, json).
#
# pairbench runs this file with the variant's own ruby (`EXE [FLAGS] rb_harness.rb`), writes one
# JSON request on stdin and reads one JSON document from the last stdout line starting with MARKER.
# The benchmark's own output goes to stderr so it cannot corrupt the answer.
#
# Requests ("mode"), mirroring py_harness.py:
#   list       {"file"}                  -> {"benchmarks": [{"name", "index", "loop_count"}], "source"}
#   calibrate  {spec, "target"}          -> {"loops", "time", "setup": seconds the prelude took}
#              {"file", "indexes", "target"} -> {"calibrations": [{"index", "loops", "time"} | {"index", "error"}]}
#   time       {spec, "loops", "warmup", "samples", "batches", "alloc"}
#              -> {"warmup": [s], "samples": [s], "overhead": s per iteration, "alloc": {...},
#                  "batches": [[s] per sample, warm-up first], "batch_loops": [loops per batch]}
#   count      {spec, "loops", "empty_loops"} -> {"loops"}: `loops` iterations then `empty_loops`
#              empty ones, untimed, for an instruction counter outside the process
# A spec is {"file", "index"} (one benchmark of a benchmark_driver YAML file; with "source", the
# file's code as `list` answered it, the file is not read again), {"setup", "stmt"}
# (prelude and script given on the command line) or {"file", "script": true} (a whole .rb file, run
# once per process: one sample, as benchmark_driver runs ruby/ruby's benchmark/*.rb).
#
# benchmark_driver's YAML format, as used by ruby/ruby's benchmark/*.yml:
#   prelude: code run once          benchmark: {name: code, ...}
#   teardown: code run at the end   benchmark: [{name:, script:, prelude:, loop_count:} | "code", ...]
#   loop_count: N
# loop_count is reported back; pairbench uses it as the loop count only when asked (--loops file),
# else timing is calibrated to a target time per sample, as benchmark_driver's ips runner does.
# Files for another runner (`type:`, `ractor:`) are refused rather than timed with this one.
#
# Each benchmark runs from a real script file in the run's directory (the request's "run_dir",
# one per pairbench run, removed by pairbench when the run ends; else a temporary directory of this
# worker's own, removed at exit): $0 and __FILE__ name that file, so benchmarks that write next to
# $0 (require.yml) write there, never into pairbench's installed package, and find what an earlier
# worker of the run made, as benchmark_driver's workers do beside their scripts in one directory.

# Only json at the top: yaml (psych), tmpdir and fileutils load only where needed, so a measuring
# worker given the file's source holds what benchmark_driver's generated script holds, plus json
# (about 0.1 s less per worker start here, and no psych objects on the heap being measured).
# rbconfig (RbConfig.ruby, the answer's executable) is loaded by rubygems, which `ruby --disable-gems` skips.
require 'json'
require 'rbconfig'

MARKER = "@@pairbench@@ "
ALLOC_OPS = 100_000
CLOCKS = { "cpu" => "Process::CLOCK_PROCESS_CPUTIME_ID", "wall" => "Process::CLOCK_MONOTONIC" }

class BenchError < StandardError
  attr_reader :stage
  def initialize(stage, message)
    super(message)
    @stage = stage
  end
end

# The script file a benchmark runs from, and the name it is shown by in error messages.
$pb_script = nil
$pb_shown = nil

# The directory pairbench gave for the whole run (kept at exit), if any.
$pb_shared_dir = nil
$pb_count_dir = nil

def run_dir
  $pb_run_dir ||= $pb_shared_dir || (require('tmpdir') && Dir.mktmpdir("pairbench-rb-"))
end

# Writes `code` to a script file in the run directory and points $0 at it; the process id keeps
# workers of one run from writing over each other's script.
def script_file(name, code, shown)
  pid = $pb_count_dir ? "" : "-#{Process.pid}"  # counted workers run one at a time, in a directory of their own
  path = File.join(run_dir, name.to_s.gsub(/[^A-Za-z0-9_.-]/, "_")[0, 80] + "#{pid}.rb")
  File.write(path, code)
  $0 = path
  $pb_script = path
  $pb_shown = shown
  path
end

def describe(exc)
  where = (exc.backtrace || []).reject { |l| l.include?("rb_harness.rb") }.first
  msg = "#{exc.class}: #{exc.message.lines.first.to_s.strip}"
  msg = msg.gsub($pb_script, $pb_shown) if $pb_script
  return msg unless where
  where = where.sub(/:in .*/, '')
  where = where.sub($pb_script, $pb_shown) if $pb_script
  "#{msg} (#{where})"
end

# benchmark_driver runners other than the default loop: timing such a file with it would time
# something else (a Ractor benchmark without Ractors), so it is refused.
UNSUPPORTED_KEYS = { "type" => "runner type", "ractor" => "Ractor runner (ractor:)" }

def load_yaml(path)
  require 'yaml'
  begin
    doc = YAML.respond_to?(:unsafe_load_file) ? YAML.unsafe_load_file(path) : YAML.load_file(path)
  rescue Exception => e
    raise BenchError.new("load", "#{path}: not valid YAML: #{e.message.lines.first.to_s.strip}")
  end
  # before the shape check: some runners' files have no `benchmark` key (mjit_exec's num_methods)
  UNSUPPORTED_KEYS.each do |key, what|
    next unless doc.is_a?(Hash) && doc.key?(key)
    raise BenchError.new("load", "#{path}: #{what} #{doc[key].inspect} is not supported: pairbench times " \
                         "benchmark_driver's default loop only; run this file with benchmark_driver")
  end
  unless doc.is_a?(Hash) && doc.key?("benchmark")
    raise BenchError.new("load", "#{path}: expected a map with a `benchmark` key (benchmark_driver format), got #{doc.class}")
  end
  prelude = doc["prelude"].to_s
  items = []
  bench = doc["benchmark"]
  case bench
  when Hash
    bench.each { |name, code| items << { "name" => name.to_s, "script" => code.to_s } }
  when Array
    bench.each_with_index do |item, i|
      if item.is_a?(String)
        items << { "name" => item.strip, "script" => item }
      elsif item.is_a?(Hash) && item["script"]
        items << { "name" => (item["name"] || item["script"].to_s.strip).to_s, "script" => item["script"].to_s,
                   "prelude" => item["prelude"].to_s, "loop_count" => item["loop_count"] }
      else
        raise BenchError.new("load", "#{path}: benchmark item #{i + 1} must be a string or a map with `script`, got #{item.inspect[0, 60]}")
      end
    end
  when String
    items << { "name" => File.basename(path, ".*"), "script" => bench }
  else
    raise BenchError.new("load", "#{path}: `benchmark` must be a map of name to code or a list, got #{bench.class}")
  end
  raise BenchError.new("load", "#{path}: `benchmark` is empty") if items.empty?
  items.each { |it| it["loop_count"] ||= doc["loop_count"] }
  [prelude, items, doc["teardown"].to_s]
end

# The listing carries the file's code ("source"): pairbench hands it back in later requests, so
# their workers need not load yaml.
def do_list(req)
  prelude, items, teardown = load_yaml(req["file"])
  source = { "prelude" => prelude, "items" => items, "teardown" => teardown }
  source = nil unless (JSON.generate(source) rescue nil) # not JSON-safe: later workers read the file
  { "benchmarks" => items.each_with_index.map { |it, i| { "name" => it["name"], "index" => i, "loop_count" => it["loop_count"] } },
    "source" => source }
end

# [prelude, items, teardown] from the request's "source" (what `list` gave), else from the file.
def load_benchmarks(req)
  src = req["source"]
  return load_yaml(req["file"]) unless src.is_a?(Hash) && src["items"].is_a?(Array)
  [src["prelude"].to_s, src["items"], src["teardown"].to_s]
end

def fresh_binding
  binding
end

# CPU time of this process by default: wall time on a shared machine also counts other
# processes' time slices. "wall" for operations that sleep, wait or use other threads.
def clock_name(req)
  CLOCKS[req["clock"] || "cpu"] or raise BenchError.new("request", "unknown clock #{req['clock'].inspect}; valid: cpu, wall")
end

# Code to run once the samples are taken (the file's `teardown:`), in the benchmark's binding.
$pb_teardown = nil

def run_teardown
  code, scope = $pb_teardown
  $pb_teardown = nil
  eval(code, scope, $pb_shown || "teardown", 1) if code && !code.strip.empty?
rescue Exception => e
  raise BenchError.new("teardown", "teardown: #{describe(e)}")
end

# [timed, empty]: lambdas running `n` iterations of the script (or of nothing) and returning seconds.
def build(req)
  teardown = ""
  if req["file"]
    prelude, items, teardown = load_benchmarks(req)
    item = items[req["index"].to_i] or raise BenchError.new("load", "#{req['file']}: no benchmark ##{req['index']}")
    prelude = prelude + "\n" + item["prelude"].to_s
    script = item["script"]
    name, shown = item["name"], "#{File.basename(req['file'])}:#{item['name']}"
  else
    prelude = req["setup"].to_s
    script = req["stmt"].to_s
    name, shown = "benchmark", "benchmark"
  end
  clock = clock_name(req)
  loop_src = lambda do |body|
    "lambda do |__pb_n|\n  __pb_i = 0\n  __pb_t0 = Process.clock_gettime(#{clock})\n" \
    "  while __pb_i < __pb_n\n#{body}\n    __pb_i += 1\n  end\n" \
    "  Process.clock_gettime(#{clock}) - __pb_t0\nend"
  end
  src = "#{prelude}\n[#{loop_src.call(script)},\n#{loop_src.call('')}]\n"
  path = script_file(name, src, shown)
  scope = fresh_binding
  $pb_teardown = [teardown, scope]
  begin
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    lambdas = eval(src, scope, path, 1)
    $pb_setup_s = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0 # the prelude, in every worker
    lambdas
  rescue Exception => e
    raise BenchError.new("load", describe(e))
  end
end

# A whole .rb file timed once: compiled first (not timed, as benchmark_driver compiles its
# generated script before the clock starts), then evaluated at top level from its copy in the
# run directory, so __FILE__, __dir__ and $0 point there.
def time_script(req)
  source = req["file"].to_s
  code = begin
    File.read(source)
  rescue SystemCallError => e
    raise BenchError.new("load", "#{source}: cannot read: #{e.message}")
  end
  path = script_file(File.basename(source, ".rb"), code, File.basename(source))
  clock = Process.const_get(clock_name(req).split("::").last)
  iseq = nil
  if defined?(RubyVM::InstructionSequence)
    begin
      iseq = RubyVM::InstructionSequence.compile_file(path)
    rescue SyntaxError => e
      raise BenchError.new("load", describe(e))
    end
  end
  # Objects allocated during the one run (counted whether or not GC runs; no second pass, since
  # a script may not survive being run twice in one process).
  a0 = GC.stat(:total_allocated_objects)
  t0 = Process.clock_gettime(clock)
  begin
    iseq ? iseq.eval : load(path)
  rescue SystemExit => e
    raise BenchError.new("run", "the script called exit #{e.status}") unless e.success?
  rescue Exception => e
    raise BenchError.new("run", describe(e))
  end
  t = Process.clock_gettime(clock) - t0
  allocs = GC.stat(:total_allocated_objects) - a0
  out = { "loops" => 1, "warmup" => [], "samples" => [t], "overhead" => 0.0 }
  out["alloc"] = { "allocs_per_op" => allocs.to_f } if req.fetch("alloc", true)
  out
end

# `loops` split in `batches` near-equal parts, each timed alone; a sample is their sum.
def batch_sizes(loops, batches)
  k = [[batches.to_i, 1].max, loops].min
  Array.new(k) { |i| loops / k + (i < loops % k ? 1 : 0) }
end

def run(timed, loops)
  timed.call(loops)
rescue Exception => e
  raise BenchError.new("run", describe(e))
end

def round2(n)
  return n if n < 100
  digits = n.to_s.length - 2
  (n.to_f / 10**digits).round * 10**digits
end

# {"indexes": [...]}: every listed benchmark of the file, each in a fresh binding with its own
# teardown, in this one worker (one start-up and prelude load instead of one per benchmark); a
# benchmark that fails is answered with its error and the others still calibrate.
def do_calibrate(req)
  return calibrate_one(req) unless req["indexes"].is_a?(Array)
  { "calibrations" => req["indexes"].map do |i|
    begin
      calibrate_one(req.merge("index" => i)).merge("index" => i)
    ensure
      run_teardown rescue nil
    end
  rescue BenchError => e
    { "index" => i, "error" => e.message }
  end }
end

def calibrate_one(req)
  timed, _empty = build(req)
  target = (req["target"] || 0.1).to_f
  loops = 1
  t = nil
  loop do
    t = run(timed, loops)
    break if t >= 0.01 || loops >= 10**12
    loops *= t < 0.0005 ? 10 : 2
  end
  2.times do
    loops = [1, (loops * target / [t, 1e-9].max).round].max
    t = run(timed, loops)
  end
  loops = [1, (loops * target / [t, 1e-9].max).round].max
  { "loops" => round2(loops), "time" => t, "setup" => $pb_setup_s }
end

# Allocation counts with GC disabled (a GC run allocates objects of its own, which would blur the
# exact count), over few enough ops that the heap stays small. Counting n and 2n ops and taking the
# difference cancels per-call constants (the lambda call, call caches refilled after GC.start).
# GC runs are counted in a further pass with GC enabled.
def alloc_pass(timed, loops)
  n = [[loops / 10, 1].max, ALLOC_OPS].min
  has_bytes = GC.stat.key?(:malloc_increase_bytes)
  count = lambda do |ops|
    GC.start
    GC.disable
    m0 = has_bytes ? GC.stat(:malloc_increase_bytes) : 0
    a0 = GC.stat(:total_allocated_objects)
    timed.call(ops)
    a1 = GC.stat(:total_allocated_objects)
    bytes = has_bytes ? GC.stat(:malloc_increase_bytes) - m0 : 0
    GC.enable
    [a1 - a0, bytes]
  end
  count.call(3) # fills the call caches of count's own call sites
  objs1, bytes1 = count.call(n)
  objs2, bytes2 = count.call(2 * n)
  c0 = GC.count
  timed.call(n)
  gcs = GC.count - c0
  out = {
    "allocs_per_op" => (objs2 - objs1).to_f / n,
    "gc_per_1k_ops" => gcs * 1000.0 / n,
  }
  out["malloc_bytes_per_op"] = [(bytes2 - bytes1).to_f / n, 0.0].max if has_bytes
  out
rescue BenchError
  raise
rescue Exception => e
  GC.enable
  raise BenchError.new("run", describe(e))
end

def do_time(req)
  return time_script(req) if req["script"]
  timed, empty = build(req)
  loops = req["loops"].to_i
  sizes = batch_sizes(loops, req["batches"] || 1)
  warm = Array.new((req["warmup"] || 1).to_i) { sizes.map { |k| run(timed, k) } }
  n = [1, loops / 10].max
  overhead = Array.new(5) { empty.call(n) / n }.min
  # Both clocks around the samples (four reads): an op timed by CPU time that sleeps is told.
  w0, c0 = Process.clock_gettime(Process::CLOCK_MONOTONIC), Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
  samples = Array.new((req["samples"] || 5).to_i) { sizes.map { |k| run(timed, k) } }
  clocks = { "clock" => req["clock"] == "wall" ? "wall" : "cpu", "loops" => loops * samples.size,
             "wall" => Process.clock_gettime(Process::CLOCK_MONOTONIC) - w0,
             "cpu" => Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - c0 }
  out = { "loops" => loops, "warmup" => warm.map(&:sum), "samples" => samples.map(&:sum), "overhead" => overhead,
          "clocks" => clocks }
  # each sample's batches, warm-up samples first: the steady state is classified on them
  out["batches"], out["batch_loops"] = warm + samples, sizes if sizes.size > 1
  out["alloc"] = alloc_pass(timed, loops) if req.fetch("alloc", true)
  out
end

# For --measure instructions: pairbench counts a process with (N, N) and one with (2N, 0); the
# difference is N ops less N empty iterations, so start-up, the prelude and the loop cancel. Nothing
# timed is printed (formatting a float costs a number of instructions that depends on its digits).
def do_count(req)
  raise BenchError.new("request", "a whole script cannot be counted per operation") if req["script"]
  if req["count_dir"]  # the same path in both counted processes (a pid in it would move the count)
    require 'fileutils'  # loaded by both counted processes alike, so its instructions cancel
    FileUtils.mkdir_p(req["count_dir"])
    $pb_run_dir = $pb_count_dir = req["count_dir"]
  end
  timed, empty = build(req)
  run(timed, req["loops"].to_i)
  run(empty, req["empty_loops"].to_i)
  { "loops" => req["loops"].to_i }
end

# Teardown runs even when a sample failed (it removes what the prelude made); then the run
# directory goes. A failing teardown is the answer only if nothing failed before it.
def finish(answer)
  begin
    run_teardown
  rescue BenchError => e
    answer = { "ok" => false, "stage" => e.stage, "error" => e.message } if answer["ok"]
  end
  if $pb_run_dir && $pb_run_dir == $pb_shared_dir
    File.delete($pb_script) if $pb_script && File.exist?($pb_script)
  elsif $pb_run_dir
    require 'fileutils'
    Dir.chdir(Dir.tmpdir) if Dir.pwd.start_with?($pb_run_dir)
    FileUtils.rm_rf($pb_run_dir)
  end
  answer
end

def main
  real_stdout = STDOUT
  $stdout = $stderr
  answer = begin
    input = STDIN.read.to_s
    req = JSON.parse(input.strip.empty? ? "{}" : input)
    $pb_shared_dir = req["run_dir"] if req["run_dir"].is_a?(String) && File.directory?(req["run_dir"])
    handler = { "list" => :do_list, "calibrate" => :do_calibrate, "time" => :do_time, "count" => :do_count,
                "probe" => nil }
    mode = req["mode"]
    if !handler.key?(mode)
      { "ok" => false, "stage" => "request", "error" => "unknown mode #{mode.inspect}" }
    elsif handler[mode].nil?
      { "ok" => true }
    else
      send(handler[mode], req).merge("ok" => true)
    end
  rescue BenchError => e
    { "ok" => false, "stage" => e.stage, "error" => e.message }
  rescue Exception => e
    { "ok" => false, "stage" => "harness", "error" => describe(e) }
  end
  answer = finish(answer)
  engine = defined?(RUBY_ENGINE) ? RUBY_ENGINE : "ruby"
  yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.respond_to?(:enabled?) && RubyVM::YJIT.enabled?
  answer.merge!("implementation" => engine, "version" => RUBY_VERSION, "executable" => RbConfig.ruby,
                "jit" => yjit ? "yjit" : nil)
  real_stdout.write("\n" + MARKER + JSON.generate(answer) + "\n")
  real_stdout.flush
end

main
