package srv

func countdown(k int) int {
	if k == 0 {
		return 0
	}
	return countdown(k - 1)
}
