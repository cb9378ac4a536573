package prof

func ticks() int64
