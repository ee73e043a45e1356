;; Clojure: persistent maps and vectors, lazy sequences, a reduce-heavy word count and a tiny
;; expression evaluator.
(defn evaluate [e]
  (if (seq? e)
    (let [[op & args] e vals (map evaluate args)]
      (case op + (apply + vals) * (apply * vals) - (apply - vals)))
    e))
(let [n (Long/parseLong (first *command-line-args*))
      words (map #(str "w" (mod (* % 7919) 1009)) (range n))
      freq (frequencies words)
      top (take 3 (sort-by (juxt (comp - val) key) freq))
      primes (filter (fn [p] (not-any? #(zero? (mod p %)) (range 2 (inc (int (Math/sqrt p)))))) (range 2 (quot n 5)))
      expr (reduce (fn [acc i] (list '+ acc (list '* i 2))) 0 (range 500))]
  (println "clojure words" (count words) "distinct" (count freq) "top" (vec top)
           "primes" (count primes) "expr" (evaluate expr)))
