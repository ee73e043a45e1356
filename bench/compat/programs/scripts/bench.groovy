// Groovy: closures, collections, GStrings, dynamic dispatch and a metaclass method.
def n = args[0] as int
String.metaClass.shout = { -> delegate.toUpperCase() + "!" }
def words = (1..n).collect { "word${it % 997}" }
def freq = words.countBy { it }
def top = freq.sort { a, b -> b.value <=> a.value ?: a.key <=> b.key }.take(5)
def fib
fib = { k -> k < 2 ? k : fib(k - 1) + fib(k - 2) }
def primes = (2..n / 10).findAll { p -> (2..Math.sqrt(p)).every { p % it != 0 || p == it } }
println "groovy words=${words.size()} distinct=${freq.size()} top=${top.keySet()} fib=${fib(22)} primes=${primes.size()} ${'ok'.shout()}"
