module m {
}
