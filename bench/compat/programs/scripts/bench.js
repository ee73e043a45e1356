// Rhino: objects, closures, arrays, string building and JSON.
var n = parseInt(arguments[0]);
var freq = {};
for (var i = 0; i < n; i++) {
  var k = "k" + ((i * 7919) % 1013);
  freq[k] = (freq[k] || 0) + 1;
}
var keys = Object.keys(freq).sort(function (a, b) { return freq[b] - freq[a] || (a < b ? -1 : 1); });
function fib(x) { return x < 2 ? x : fib(x - 1) + fib(x - 2); }
var primes = [];
for (var p = 2; p < n / 5; p++) {
  var isPrime = true;
  for (var d = 2; d * d <= p; d++) if (p % d == 0) { isPrime = false; break; }
  if (isPrime) primes.push(p);
}
var json = JSON.stringify({ top: keys.slice(0, 3), fib: fib(22), primes: primes.length });
print("rhino distinct=" + keys.length + " " + JSON.parse(json).top.join(",") + " " + json);
