xs = [1]
xs.push(2)
