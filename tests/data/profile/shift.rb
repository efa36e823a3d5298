# A Ruby program whose candidate adds time in exactly one method: `work` runs 4x as long under
# `slower`, `other` stays the same (the Ruby twin of shift.py).
def work(n)
  x = 0
  n.times { |i| x += i }
  x
end

def other(n)
  x = 0
  n.times { |i| x ^= i }
  x
end

n = 1_500_000
work(ARGV[0] == "slower" ? 4 * n : n)
other(n)
