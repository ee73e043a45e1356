# JRuby: blocks, hashes, strings, a small class hierarchy and symbols.
n = ARGV[0].to_i
class Shape; def area; 0; end; end
class Sq < Shape; def initialize(s); @s = s; end; def area; @s * @s; end; end
class Rect < Shape; def initialize(a, b); @a = a; @b = b; end; def area; @a * @b; end; end
shapes = (1..n).map { |i| i.even? ? Sq.new(i % 17) : Rect.new(i % 13, i % 7) }
total = shapes.sum(&:area)
freq = Hash.new(0)
(1..n).each { |i| freq["k#{(i * 7919) % 1013}"] += 1 }
top = freq.sort_by { |k, v| [-v, k] }.first(3)
primes = (2..n / 5).select { |p| (2..Math.sqrt(p)).none? { |d| (p % d).zero? } }
puts "jruby shapes=#{shapes.size} area=#{total} distinct=#{freq.size} top=#{top.inspect} primes=#{primes.size}"
