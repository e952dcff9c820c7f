struct model_params {
    int n_layers;
};
