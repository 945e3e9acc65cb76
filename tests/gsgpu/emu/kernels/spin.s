; never ends: the watchdog must stop it
.kernel spin
loop:
  s_nop
  s_jump loop
