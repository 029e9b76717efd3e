# :vars lists the script's variables, not torch.nn's hidden globals
# (__torch_nn__, __torch_lr_scheduler__, the deleted __torch_nn_make__) nor a
# name the script deleted.
printf 'import torch.nn as nn\nlayer = nn.Identity()\ngone = 1\ndel gone\n:vars\n' | $AG --python 2>&1
echo "[exit $?]"
printf ':vars\n' | $AG 2>&1
