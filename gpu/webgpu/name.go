package webgpu

// Name is the backend's name in the device registry ("webgpu:N" selects
// adapter N).
const Name = "webgpu"
