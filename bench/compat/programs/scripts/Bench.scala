// Compiled by scalac: case classes, pattern matching, implicits, collections and a for loop.
package compat

sealed trait Expr
case class Num(v: Int) extends Expr
case class Add(a: Expr, b: Expr) extends Expr
case class Mul(a: Expr, b: Expr) extends Expr

object Bench {
  implicit class Rich(val e: Expr) extends AnyVal {
    def +(o: Expr): Expr = Add(e, o)
    def *(o: Expr): Expr = Mul(e, o)
  }

  def eval(e: Expr): Int = e match {
    case Num(v)    => v
    case Add(a, b) => eval(a) + eval(b)
    case Mul(a, b) => eval(a) * eval(b)
  }

  def main(args: Array[String]): Unit = {
    val n = args(0).toInt
    val words = (0 until n).map(i => s"w${i * 7919 % 1009}")
    val freq = words.groupBy(identity).mapValues(_.size)
    val top = freq.toSeq.sortBy { case (k, v) => (-v, k) }.take(3)
    val expr = (1 to 100).foldLeft(Num(0): Expr)((acc, i) => acc + Num(i) * Num(2))
    val primes = for (p <- 2 until n / 5 if (2 to math.sqrt(p).toInt).forall(p % _ != 0)) yield p
    println(s"scala ${words.size} ${freq.size} $top ${eval(expr)} ${primes.size}")
  }
}
