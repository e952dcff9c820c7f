#include "model.h"

int first_gpu_layer(const model_params & params, int total) {
    const int n = params.n_layers;
    int start = total - n;
    if (start < 0) {
        return 0;
    }
    return start;
}
