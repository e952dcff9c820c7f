package runner

// #include "model.h"
import "C"

import (
	"encoding/json"
	"net/http"

	"example.com/app/srv"
)

func load(w http.ResponseWriter, r *http.Request) {
	var req srv.LoadRequest
	json.NewDecoder(r.Body).Decode(&req)
	var cparams C.struct_model_params
	cparams.n_layers = C.int(req.Layers)
}
