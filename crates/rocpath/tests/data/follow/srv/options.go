package srv

type Options struct {
	NumGPU    int `json:"num_gpu"`
	NumThread int `json:"num_thread"`
}

type LoadRequest struct {
	Layers int
}

func plan(requested int) int {
	if requested < 0 {
		return 0
	}
	return requested * 2
}

func Start(o Options) LoadRequest {
	n := plan(o.NumGPU)
	req := LoadRequest{Layers: n}
	return req
}

func Launch(o Options) {
	args := []string{"--gpu-layers", strconv.Itoa(o.NumGPU)}
	cmd := exec.Command("worker", args...)
	_ = cmd
	os.Setenv("TEST_GPU_LAYERS", strconv.Itoa(o.NumGPU))
	ext := exec.Command("llama-server", "--threads", strconv.Itoa(o.NumThread))
	_ = ext
	unused := o.NumGPU
}
