// OpenCL C compiled as foreign code: its metadata names each argument's type
// (.type_name), which HIP's does not. out[0] = x + n.
kernel void typed_args(global float* out, int n, float x) {
  if (__builtin_amdgcn_workitem_id_x() == 0) out[0] = x + (float)n;
}
