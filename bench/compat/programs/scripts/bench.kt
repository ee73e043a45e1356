// Compiled by kotlinc: data classes, sealed classes, extension functions, lambdas, collections.
package compat

sealed class Expr
data class Num(val v: Int) : Expr()
data class Add(val a: Expr, val b: Expr) : Expr()
data class Mul(val a: Expr, val b: Expr) : Expr()

fun Expr.eval(): Int = when (this) {
    is Num -> v
    is Add -> a.eval() + b.eval()
    is Mul -> a.eval() * b.eval()
}

operator fun Expr.plus(o: Expr): Expr = Add(this, o)
operator fun Expr.times(o: Expr): Expr = Mul(this, o)

fun main(args: Array<String>) {
    val n = args[0].toInt()
    val words = (0 until n).map { "w${it * 7919 % 1009}" }
    val freq = words.groupingBy { it }.eachCount()
    val top = freq.entries.sortedWith(compareBy({ -it.value }, { it.key })).take(3)
    val expr = (1..100).fold(Num(0) as Expr) { acc, i -> acc + Num(i) * Num(2) }
    val primes = (2 until n / 5).filter { p -> (2..Math.sqrt(p.toDouble()).toInt()).all { p % it != 0 } }
    println("kotlin ${words.size} ${freq.size} $top ${expr.eval()} ${primes.size}")
}
