// A fake libnvrtc-builtins: its marker symbol tells the fake NVRTC that the
// backend preloaded it (RTLD_GLOBAL) from NVRTC's directory.
int sf_fake_builtins_marker = 1;
