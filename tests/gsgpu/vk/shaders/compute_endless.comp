#version 450
// Never ends (a hostile program): the device's watchdog must stop it and report the fault.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Data { uint value; uint stop; } data;

void main() {
  while (data.stop == 0) data.value += 1;
}
