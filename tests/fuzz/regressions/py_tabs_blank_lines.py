x = 1
	
if x:
		
	x = 2  	# a comment after a tab
    
print(x)
	